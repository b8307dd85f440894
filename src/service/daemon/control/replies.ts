/** What the control API's route plugins share: the error answer, and the deployment a route names. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type * as s from '../../api-schemas.js';
import type { SlotView } from '../../service-port.js';
import type { Supervisor } from '../supervisor.js';

/** The supervisor as the routes read it. */
export type Slots = Pick<Supervisor, 'list' | 'get'>;

/** Answers `{ error: { code, message } }` with `status`. */
export const sendError = (reply: FastifyReply, status: number, code: string, message: string): FastifyReply =>
  reply.code(status).send({ error: { code, message } } satisfies z.infer<typeof s.errorBody>);

/** The slot named by the route's `:name`, or undefined after answering 404 with the route that lists them. */
export type SlotOr404 = (req: FastifyRequest, reply: FastifyReply) => SlotView | undefined;

export function slotOr404(slots: Pick<Slots, 'get'>): SlotOr404 {
  return (req, reply) => {
    const name = (req.params as { name?: string }).name ?? '';
    const slot = slots.get(name);
    if (!slot) void sendError(reply, 404, 'RUNTIME_API_NOT_FOUND', `no deployment named "${name}"; GET /api/deployments lists them`);
    return slot;
  };
}
