import { describe, expect, it } from 'vitest';
import { demoModel, demoModelInfo } from './demo-model';

describe('demo model choice', () => {
  it('without GNL_MODEL or without the provider key, the scripted model, saying why', () => {
    expect(demoModelInfo({})).toEqual({
      kind: 'scripted',
      provider: 'gnl-demo',
      modelId: 'scripted-support-v1',
      reason: 'no GNL_MODEL, OPENAI_API_KEY or ANTHROPIC_API_KEY is set',
    });
    expect(demoModelInfo({ OPENAI_API_KEY: 'sk-test' })).toMatchObject({ kind: 'scripted', reason: 'GNL_MODEL is not set' });
    expect(demoModelInfo({ GNL_MODEL: 'openai:gpt-4.1-mini' })).toMatchObject({ kind: 'scripted', reason: expect.stringContaining('needs OPENAI_API_KEY') });
    expect(demoModelInfo({ GNL_MODEL: 'mistral:large', OPENAI_API_KEY: 'k' })).toMatchObject({
      kind: 'scripted',
      reason: expect.stringContaining('openai or anthropic'),
    });
    expect(demoModel({}).provider).toBe('gnl-demo');
  });

  it('with GNL_MODEL and the key, the real provider (named, or inferred from the model id or the key)', () => {
    expect(demoModelInfo({ GNL_MODEL: 'openai:gpt-4.1-mini', OPENAI_API_KEY: 'k' })).toEqual({ kind: 'provider', provider: 'openai', modelId: 'gpt-4.1-mini' });
    expect(demoModelInfo({ GNL_MODEL: 'claude-sonnet-4-5', ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' })).toMatchObject({ provider: 'anthropic' });
    expect(demoModelInfo({ GNL_MODEL: 'some-model', ANTHROPIC_API_KEY: 'k' })).toMatchObject({ provider: 'anthropic', modelId: 'some-model' });
    const model = demoModel({ GNL_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'k' });
    expect(model.modelId).toBe('claude-sonnet-4-5');
    expect(model.provider).toMatch(/^anthropic/);
    expect(demoModel({ GNL_MODEL: 'gpt-4.1-mini', OPENAI_API_KEY: 'k' }).provider).toMatch(/^openai/);
  });
});
