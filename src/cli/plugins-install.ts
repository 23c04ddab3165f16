export async function pluginsInstall(_argv: string[], _globals: { workspace?: string }): Promise<number> {
  return 0;
}
