export class Store {
  async fetch(
    id: string,
    options: Record<string, unknown> = {},
  ): Promise<{ id: string }> {
    return { id };
  }

  get(key: string): { value: number } | undefined {
    return undefined;
  }
}

export const List = <T extends object>({
  fetch,
  items = [],
}: { fetch: (o: object) => Promise<T[]>; items?: T[] }): T[] | null => {
  void fetch({ limit: items.length });
  return null;
};
