export async function pluginsDev(_argv: string[], _globals: { workspace?: string }): Promise<number> {
  return 0;
}
