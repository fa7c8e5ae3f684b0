// The module's public face: what the apps and the other modules call. Anything else is internal.
export { startProcess } from './processes';
export type { RunningProcess } from './processes';
export { startRedisServer } from './redis-server';
export type { OwnRedisServer } from './redis-server';
export { startTestS3Server } from './s3-server';
export type { TestS3Server } from './s3-server';
export { createTestDatabase, testQueuePrefix, testServiceUrls } from './services';
export { startTestSmtp } from './smtp';
export type { ReceivedMail, TestSmtp } from './smtp';
export { processGroup } from './stack';
export type { ProcessGroup } from './stack';
export { processMemory, sendStreamedBody, sendStreamedForm } from './streamed-form';
export type { BodyPiece, GeneratedPart, StreamedFormResult } from './streamed-form';
export { startUpstreamSim, submitSimVideo } from './upstream-sim';
export type { RunningSim } from './upstream-sim';
export { freePort, waitFor } from './wait';
export { headersOf, startReceiver } from './webhook-receiver';
export type { Received, Receiver, Reply } from './webhook-receiver';
