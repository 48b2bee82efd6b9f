/** Runs once when the Studio's server starts: its executor and the first-operator check (lib/studio/boot.ts). */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs' || process.env.NEXT_PHASE === 'phase-production-build') return;
  const { bootStudio } = await import('@/lib/studio/boot');
  try {
    await bootStudio();
  } catch (error) {
    // The pages say what is wrong with the journal; the server stays up to say it.
    console.error('studio: start-up failed:', error);
  }
}
