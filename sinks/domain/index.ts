export type { Brand } from './brand.ts';
export * from './message-id.ts';
export * from './batch-token.ts';
export * from './shard-name.ts';
export * from './fingerprint.ts';
export * from './sink-class-name.ts';
