/** A response as a test reads it. */
export interface HttpResult {
  status: number;
  body: string;
  headers: Headers;
}

/** POSTs `body` as-is (no re-serialization) with the given headers. */
export async function post(
  url: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
    redirect: 'manual',
  });
  return { status: response.status, body: await response.text(), headers: response.headers };
}
