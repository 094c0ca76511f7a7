export { alsoOnForcedStop, installInterrupt } from './interrupt.ts';
export { prepareWritableDir } from './writable-dir.ts';
