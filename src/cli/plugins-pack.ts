export async function pluginsPack(_argv: string[]): Promise<number> {
  return 0;
}
