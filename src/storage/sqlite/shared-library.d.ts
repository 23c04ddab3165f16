/** A shared library imported `with { type: "file" }`: its path (inside /$bunfs in the binary). */
declare module "*.so" {
  const path: string;
  export default path;
}
