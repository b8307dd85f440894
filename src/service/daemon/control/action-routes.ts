/**
 * Positions and manual actions on a deployment: the switches (pause, resume, kill, unkill), and
 * the manual decisions (close a position, force an entry, cancel an intent), each answered with
 * the denial's own code when the admission check or the risk gate refuses it.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Logger } from '../../../core/index.js';
import type { ManualAction, ManualMeta } from '../../../runtime/handle/deployment-handle.js';
import * as s from '../../api-schemas.js';
import { manualOnDeployment, switchDeployment, type SwitchVerb } from '../../operator-actions.js';
import { answer, nameParams, refused } from '../openapi.js';
import { sendError, slotOr404, type Slots } from './replies.js';

export interface ActionRoutesOptions {
  readonly supervisor: Pick<Slots, 'get'>;
  readonly log: Logger;
}

const switches: Record<SwitchVerb, string> = {
  pause: 'pause entries (exits keep working)',
  resume: 'resume entries',
  kill: "kill switch on: no new buys (persisted in the deployment's store, paper and live alike)",
  unkill: "kill switch off (persisted in the deployment's store, paper and live alike)",
};

const manualAnswers = {
  200: answer(s.manualResultBody, 'placed (close, enter) or cancelled'),
  409: answer(s.errorBody, 'denied by the admission check or the risk gate, or refused (ENGINE_MANUAL_REFUSED), with the code'),
  400: answer(s.errorBody, 'the body does not fit the schema'),
  ...refused,
};

export function actionRoutes(o: ActionRoutesOptions): FastifyPluginAsync {
  const slotOf = slotOr404(o.supervisor);
  const manual = async (req: FastifyRequest, reply: FastifyReply, action: ManualAction, b: { by?: string | undefined; reason?: string | undefined }) => {
    const slot = slotOf(req, reply);
    if (!slot) return reply;
    const r = manualOnDeployment(slot, action, { by: b.by ?? 'api', why: b.reason ?? 'no reason given' } satisfies ManualMeta);
    if (!r.ok) return sendError(reply, r.status, r.code, r.message);
    return { name: slot.name, action: action.action, ...r.value } satisfies z.infer<typeof s.manualResultBody>;
  };
  return async (plain) => {
    const api = plain.withTypeProvider<ZodTypeProvider>();
    for (const verb of ['pause', 'resume', 'kill', 'unkill'] as const) {
      api.post(
        `/api/deployments/:name/${verb}`,
        { schema: { summary: switches[verb], params: nameParams, body: s.actionBody, response: { 200: s.actionResultBody, ...refused } } },
        async (req, reply) => {
          const slot = slotOf(req, reply);
          if (!slot) return reply;
          const r = await switchDeployment(slot, verb, req.body.reason);
          if (!r.ok) return sendError(reply, r.status, r.code, r.message);
          o.log.warn({ deployment: slot.name, action: verb }, 'operator action');
          const after = o.supervisor.get(slot.name);
          return { name: slot.name, state: after?.state ?? slot.state, killed: after?.handle?.stats().risk.killed ?? null } satisfies z.infer<
            typeof s.actionResultBody
          >;
        },
      );
    }
    api.post(
      '/api/deployments/:name/positions/close',
      {
        schema: {
          summary: 'sell a position, all of it or a share (fractionBps); journaled as a manual decision',
          params: nameParams,
          body: s.closeBody,
          response: manualAnswers,
        },
      },
      async (req, reply) => {
        const b = req.body;
        return manual(req, reply, { action: 'close', mint: b.mint, strategyId: b.strategyId, fractionBps: b.fractionBps }, b);
      },
    );
    api.post(
      '/api/deployments/:name/entries',
      {
        schema: {
          summary: 'force a buy through the admission check and the risk gate; journaled as a manual decision',
          params: nameParams,
          body: s.enterBody,
          response: manualAnswers,
        },
      },
      async (req, reply) => {
        const b = req.body;
        return manual(req, reply, { action: 'enter', mint: b.mint, strategyId: b.strategyId, spendLamports: BigInt(b.spendLamports) }, b);
      },
    );
    api.post(
      '/api/deployments/:name/intents/:id/cancel',
      {
        schema: {
          summary: 'cancel an intent that has not left the process (paper: in its latency)',
          params: nameParams.extend({ id: z.string().describe('the intent id') }),
          body: s.cancelBody,
          response: manualAnswers,
        },
      },
      async (req, reply) => manual(req, reply, { action: 'cancel', intentId: req.params.id }, req.body),
    );
  };
}
