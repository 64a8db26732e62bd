/** A page's `searchParams` prop, as Next passes it to server components. */
export type PageSearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The page's query string as URLSearchParams, as the client components read it with `useSearchParams`. */
export async function pageSearch(searchParams: PageSearchParams): Promise<URLSearchParams> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(await searchParams)) {
    for (const one of [value ?? []].flat()) search.append(name, one);
  }
  return search;
}
