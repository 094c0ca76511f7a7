export type {
  AnySink,
  AtLeastOnceSink,
  AtMostOnceAck,
  AtMostOnceSink,
  BatchingSink,
  InsertAttempt,
  InsertObserver,
  InsertOutcome,
  InsertResult,
  OutboxBatch,
  ResolveEndpoint,
  SentRequest,
  SinkContext,
  SinkMessage,
  SinkWarningKind,
} from './api.ts';
export type { SinkConstructor } from './classes/create-sink.ts';
export { type BatchToken, dedupToken, type DedupToken } from './domain/batch-token.ts';
export type { Brand } from './domain/brand.ts';
export type { RoutingFingerprint, TargetFingerprint } from './domain/fingerprint.ts';
export { formatMessageId, isMessageId, type MessageId, parseMessageId } from './domain/message-id.ts';
export { isSinkClassName, SINK_CLASS_NAMES, type SinkClassName } from './domain/sink-class-name.ts';
export { CodedError, hasErrorCode } from './errors.ts';
export type { SinkRegistry } from './registry.ts';
export { loadSinkClasses } from './load-sink-classes.ts';
export { InsertGaveUpError } from './retry/insert-give-up.ts';
export type { Row, RowValue } from './routing/routing-key.ts';
export { addressBook } from './session/address-book.ts';
export { type DeliveryGuarantee, type HostForm, SINK_CLASSES } from './sink-classes.ts';
export type { DynamicParameters, SinkSpec } from './spec/sink-spec.ts';
export { parseSinkSpec, validateDynamicParameters } from './spec/validate-spec.ts';
export type { TargetSlot, TopologyFingerprints } from './topology/topology-guard.ts';
export type { StreamColumn } from './types/stream-type.ts';
