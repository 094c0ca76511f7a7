export { matrixHtml, matrixJson, matrixJunit, matrixMarkdown } from './mutation-matrix.ts';
export { soakTrendHtml } from './soak-trend-html.ts';
export { writeRunReports } from './write-run.ts';
