import type { Elysia } from 'elysia'

export type GqlResponse = { status: number; body: any; headers: Headers; text: string }

type Handler = { handle(request: Request): Promise<Response> } | Elysia<any, any, any, any, any, any, any>

/** POSTs one GraphQL request to an app (no socket) and returns status, parsed body and raw text. */
export async function gql(
  app: Handler,
  credential: { jwt?: string; apiKey?: string; headers?: Record<string, string> },
  query: string,
  variables?: Record<string, unknown>,
  rawBody?: string
): Promise<GqlResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...credential.headers }
  if (credential.jwt) headers.authorization = `Bearer ${credential.jwt}`
  if (credential.apiKey) headers['x-api-key'] = credential.apiKey
  const body = rawBody ?? JSON.stringify(variables === undefined ? { query } : { query, variables })
  const res = await (app as any).handle(new Request('http://localhost/graphql', { method: 'POST', headers, body }))
  const text = await res.text()
  let parsed: any = null
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers, text }
}

export const codes = (res: GqlResponse): string[] => (res.body?.errors ?? []).map((e: any) => e.extensions?.code)
