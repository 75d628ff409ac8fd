export function NotBuiltYet({ title }: { title: string }) {
  return (
    <>
      <h1>{title}</h1>
      <p className="notice">This page is not built yet. Everything it will show is already in Postline's API (see /openapi.json), and the SDK works with it.</p>
    </>
  );
}
