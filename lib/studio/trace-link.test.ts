import { describe, expect, it } from 'vitest';
import { TraceUrlError, traceHref, traceUrlTemplate } from './trace-link';

describe('GNL_TRACE_URL', () => {
  it('unset or empty: no link', () => {
    expect(traceUrlTemplate({})).toBeUndefined();
    expect(traceUrlTemplate({ GNL_TRACE_URL: '  ' })).toBeUndefined();
  });

  it('a template with {traceId} links each trace id', () => {
    const template = traceUrlTemplate({ GNL_TRACE_URL: 'https://jaeger.example.com/trace/{traceId}?uiFind=x' });
    expect(template).toBe('https://jaeger.example.com/trace/{traceId}?uiFind=x');
    expect(traceHref(template as string, '0af7651916cd43dd8448eb211c80319c')).toBe(
      'https://jaeger.example.com/trace/0af7651916cd43dd8448eb211c80319c?uiFind=x',
    );
    // Only a trace id as the journal's schema holds it is put into a link.
    expect(traceHref(template as string, '"><script>')).toBeUndefined();
  });

  it.each([
    ['https://jaeger.example.com/trace/', 'must contain {traceId}'],
    ['javascript:alert(1)//{traceId}', 'must be an http(s) URL'],
    ['not a url {traceId}', 'must be an http(s) URL'],
  ])('refuses %j, saying why', (value, why) => {
    expect(() => traceUrlTemplate({ GNL_TRACE_URL: value })).toThrow(TraceUrlError);
    expect(() => traceUrlTemplate({ GNL_TRACE_URL: value })).toThrow(why);
  });
});
