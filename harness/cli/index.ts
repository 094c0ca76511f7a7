export { alsoOnForcedStop, installInterrupt } from './interrupt.ts';
export { lanesOption } from './lanes-option.ts';
export { prepareWritableDir } from './writable-dir.ts';
