declare module "*.wit" {
  const text: string;
  export default text;
}
