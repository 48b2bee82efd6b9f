/** Runs once when the Studio's server starts: its executor and the first-operator check (lib/studio/boot.ts). */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs' || process.env.NEXT_PHASE === 'phase-production-build') return;
  // Spans over OTLP when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT says where (docs/operations.md#traces).
  try {
    const { startTraceExport } = await import('@/lib/executor');
    const traces = startTraceExport('gnl-studio');
    if (traces) console.log(`studio: traces go to ${traces.endpoint} as ${traces.serviceName}`);
  } catch (error) {
    console.error('studio: traces are not exported:', error);
  }
  const { bootStudio, checkStudioSettings } = await import('@/lib/studio/boot');
  // A setting that is wrong (a trace URL that is not http(s), a retention value out of range) stops the
  // start with the variable's name, rather than a server that answers 500 on the pages that read it.
  const wrong = checkStudioSettings();
  if (wrong) {
    console.error(`studio: refusing to start: ${wrong}`);
    process.exit(1);
  }
  try {
    await bootStudio();
  } catch (error) {
    // The pages say what is wrong with the journal; the server stays up to say it.
    console.error('studio: start-up failed:', error);
  }
}
