import { describe, expect, it } from 'vitest';
import { resumeReason } from './resume-reason';

describe('the reason the Studio records when a decision resumes the run', () => {
  it('names the decision and the call', () => {
    expect(resumeReason({ kind: 'approve', toolCallId: 'call-2', toolName: 'issueRefund' })).toBe('after approving issueRefund (call-2)');
    expect(resumeReason({ kind: 'reject', toolCallId: 'call-2', toolName: 'issueRefund' })).toBe('after rejecting issueRefund (call-2)');
    expect(resumeReason({ kind: 'resolve', outcome: 'done', toolCallId: 'c', toolName: 'refund' })).toBe('after marking refund (c) done');
    expect(resumeReason({ kind: 'resolve', outcome: 'not-done', toolCallId: 'c' })).toBe('after marking c not done');
    expect(resumeReason({ kind: 'provide', toolCallId: 'call-3', toolName: 'geolocate' })).toBe('after providing the result of geolocate (call-3)');
  });
});
