import { APICallError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { RunDivergedError, ToolCallFailedError } from '@/lib/durable';
import { isTransientFailure } from './transient-failure';

const apiError = (statusCode: number | undefined, isRetryable: boolean, cause?: unknown) =>
  new APICallError({ message: `HTTP ${statusCode}`, url: 'http://x/v1', requestBodyValues: {}, statusCode, isRetryable, cause });
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });

describe('which failures the executor retries', () => {
  it('transient: 5xx and 429 (retryable API errors), the SDK retries used up on them, refused connections, timeouts', () => {
    expect(isTransientFailure(apiError(503, true))).toBe(true);
    expect(isTransientFailure(apiError(429, true))).toBe(true);
    expect(isTransientFailure(new RetryError({ message: 'x', reason: 'maxRetriesExceeded', errors: [apiError(503, true)] }))).toBe(true);
    expect(isTransientFailure(apiError(undefined, true, refused()))).toBe(true);
    expect(isTransientFailure(new TypeError('fetch failed', { cause: refused() }))).toBe(true);
    expect(isTransientFailure(new DOMException('The operation timed out.', 'TimeoutError'))).toBe(true);
  });

  it('never: a final 4xx, the SDK giving up on one, a tool’s own error (whatever its cause), divergence, anything unknown', () => {
    expect(isTransientFailure(apiError(400, false))).toBe(false);
    expect(isTransientFailure(new RetryError({ message: 'x', reason: 'errorNotRetryable', errors: [apiError(401, false)] }))).toBe(false);
    const toolFailed = new ToolCallFailedError({ runId: 'r', toolCallId: 'c', toolName: 't', attempt: 1, cause: refused() });
    expect(isTransientFailure(toolFailed)).toBe(false);
    expect(isTransientFailure(new RunDivergedError({ runId: 'r', differences: [] }))).toBe(false);
    expect(isTransientFailure(new Error('Service Unavailable 503 ECONNREFUSED'))).toBe(false); // messages are never read
    expect(isTransientFailure(new DOMException('aborted', 'AbortError'))).toBe(false);
    expect(isTransientFailure('ECONNREFUSED')).toBe(false);
  });
});
