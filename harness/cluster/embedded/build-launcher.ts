import { describeError } from '../../base/index.ts';
import { ensureLauncher } from './launcher.ts';

try {
  console.log(ensureLauncher());
} catch (error) {
  console.error(describeError(error));
  process.exit(1);
}
