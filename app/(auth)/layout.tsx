export default function AuthLayout({ children }: { children: React.ReactNode }) {
  return (
    <main className="mx-auto flex min-h-dvh max-w-sm flex-col justify-center gap-6 px-4 py-12">
      <div className="text-lg font-semibold tracking-tight">GNL Studio</div>
      {children}
    </main>
  );
}
