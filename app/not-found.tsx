import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="mx-auto max-w-xl space-y-3 px-6 py-24 text-center">
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="text-sm text-muted-foreground">No run or page has this address in this journal.</p>
      <Link href="/" className="text-sm text-link hover:underline">
        Back to the runs
      </Link>
    </div>
  );
}
