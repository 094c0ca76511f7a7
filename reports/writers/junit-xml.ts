import type { RunResult } from '../run-result.ts';

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** `junit.xml`: one test case per class x scenario; violation = failure, infra-error = error, inconclusive and interrupted = skipped with the reason. */
export function junitXml(run: RunResult): string {
  const suites = Object.entries(run.classes).map(([name, result]) => {
    const cases = result.scenarios.map((scenario) => {
      const body = [
        ...scenario.anomalies.map((a) => `${a.category} (${a.count}): ${a.examples.join(', ')}`),
        ...scenario.notes,
        `replay: ${scenario.replayCommand}`,
      ].join('\n');
      const open = `    <testcase classname="${escape(name)}" name="${escape(scenario.name)}" time="${(scenario.durationMs / 1000).toFixed(3)}"`;
      switch (scenario.verdict) {
        case 'pass':
          return `${open}/>`;
        case 'violation':
          return `${open}>\n      <failure message="guarantee violated">${escape(body)}</failure>\n    </testcase>`;
        case 'infra-error':
          return `${open}>\n      <error message="infrastructure error">${escape(body)}</error>\n    </testcase>`;
        case 'inconclusive':
          return `${open}>\n      <skipped message="inconclusive: declared coverage did not happen">${escape(body)}</skipped>\n    </testcase>`;
        case 'interrupted':
          return `${open}>\n      <skipped message="interrupted: the runner was stopped by a signal">${escape(body)}</skipped>\n    </testcase>`;
      }
    });
    const count = (verdict: string) => result.scenarios.filter((s) => s.verdict === verdict).length;
    const time = result.scenarios.reduce((total, s) => total + s.durationMs, 0) / 1000;
    return `  <testsuite name="${escape(name)}" tests="${result.scenarios.length}" failures="${count('violation')}" errors="${count('infra-error')}" skipped="${count('inconclusive') + count('interrupted')}" time="${time.toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="sink-chaos ${escape(run.runId)}">\n${suites.join('\n')}\n</testsuites>\n`;
}
