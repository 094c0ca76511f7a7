import type { JobReport } from '../results/index.ts';

/**
 * Characters XML 1.0 does not allow anywhere, not even escaped: C0 controls but tab, newline and
 * carriage return, lone surrogates, U+FFFE and U+FFFF. A test view refuses the whole file for one.
 */
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text for an attribute or an element: what XML cannot hold shown as `\u001b`, the rest escaped. */
export const xmlText = (text: string) =>
  text
    .replace(NOT_XML, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** `junit.xml`: one test case per class x scenario; violation = failure, infra-error = error, inconclusive and interrupted = skipped with the reason. */
export function junitXml(run: JobReport): string {
  const suites = Object.entries(run.classes).map(([name, result]) => {
    const cases = result.scenarios.map((scenario) => {
      const body = [
        ...scenario.anomalies.map((a) => `${a.category} (${a.count}): ${a.examples.join(', ')}`),
        ...scenario.notes,
        `replay: ${scenario.replayCommand}`,
        ...(scenario.scheduleReplayCommand === undefined
          ? []
          : [`replay the input: ${scenario.scheduleReplayCommand}`]),
      ].join('\n');
      const open = `    <testcase classname="${xmlText(name)}" name="${xmlText(scenario.name)}" time="${(scenario.durationMs / 1000).toFixed(3)}"`;
      switch (scenario.verdict) {
        case 'pass':
          return `${open}/>`;
        case 'violation':
          return `${open}>\n      <failure message="guarantee violated">${xmlText(body)}</failure>\n    </testcase>`;
        case 'infra-error':
          return `${open}>\n      <error message="infrastructure error">${xmlText(body)}</error>\n    </testcase>`;
        case 'inconclusive':
          return `${open}>\n      <skipped message="inconclusive: declared coverage did not happen">${xmlText(body)}</skipped>\n    </testcase>`;
        case 'interrupted':
          return `${open}>\n      <skipped message="interrupted: the runner was stopped by a signal">${xmlText(body)}</skipped>\n    </testcase>`;
      }
    });
    const count = (verdict: string) => result.scenarios.filter((s) => s.verdict === verdict).length;
    const time = result.scenarios.reduce((total, s) => total + s.durationMs, 0) / 1000;
    return `  <testsuite name="${xmlText(name)}" tests="${result.scenarios.length}" failures="${count('violation')}" errors="${count('infra-error')}" skipped="${count('inconclusive') + count('interrupted')}" time="${time.toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="sink-chaos ${xmlText(run.runId)}">\n${suites.join('\n')}\n</testsuites>\n`;
}
