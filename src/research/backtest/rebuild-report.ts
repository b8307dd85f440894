/** Rebuilds the HTML report from the text of a report.json (checked to be one). */
import { ChainpilotError } from '../../core/index.js';
import { renderReportHtml } from '../report/render-html.js';
import { REPORT_FORMAT, type BacktestReport } from '../report/report-types.js';

export function rebuildReportHtml(text: string, file: string): string {
  let r: BacktestReport | undefined;
  try {
    r = JSON.parse(text) as BacktestReport;
  } catch {
    r = undefined;
  }
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks parsed JSON at runtime
  if (!r || r.kind !== 'chainpilot-backtest-report' || r.format !== REPORT_FORMAT) {
    throw new ChainpilotError(
      'BACKTEST_INVALID_OPTION',
      `${file}: not a chainpilot backtest report.json of format ${REPORT_FORMAT}; give the report.json that chainpilot backtest wrote`,
      { retry: 'not_retryable', context: { field: 'report' } },
    );
  }
  return renderReportHtml(r);
}
