/**
 * The demo's surface for the app, the executors and scripts: which model the demo runs on, the
 * outside service (run it in-process, read its counters), and crash points. The support agent itself
 * is agents/support.ts; its parts (tools, scripted model) stay inside this folder.
 */
export { demoModelInfo, type DemoModelInfo } from './demo-model';
export { demoEmbeddingInfo, demoEmbeddingModel, type DemoEmbeddingInfo, wordsVector, WordsEmbeddingModel } from './demo-embedding';
export { startOutsideService, DEFAULT_SERVICE_PORT, type OutsideService, type OutsideServiceOptions } from './outside-service';
export {
  DEMO_CUSTOMERS,
  type ServiceStats,
  type OperationStats,
  type OperationKind,
  type Customer,
  type Ticket,
  type Refund,
  type Email,
} from './service-store';
export { serviceClient, type ServiceClient } from './service-client';
export { demoServiceUrl, demoServicePort, demoChecks } from './demo-config';
export { crashPointsAllowed, CRASH_POINTS_ENV, type CrashPointsPolicy } from './crash-points-allowed';
export { CRASH_POINTS, CRASH_AT_ENV, crashPointSchema, withCrashPoint, armedCrashPoint, type CrashPoint } from './crash-points';
export { CrashPointStore, type CrashPointDatabase } from './crash-point-store';
