import {
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  type DocumentNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
} from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { ApiError } from '../../platform/errors'

export type QueryLimits = {
  /** characters of the query text, checked before it is parsed */
  maxQueryLength: number
  /** lexer tokens; the parser stops as soon as the document has more */
  maxTokens: number
  /** nested selection levels (fragments are followed; introspection subtrees are not counted) */
  maxDepth: number
  /** field selections with fragments expanded, so a fragment used ten times counts ten times */
  maxFields: number
  maxAliases: number
  maxDirectives: number
  /** rows all list fields of one request may return together (aliases × page sizes), charged before each query */
  maxListItems: number
  /** bytes of the serialised result; past it the request gets an error instead of the data */
  maxResponseBytes: number
}

export const DEFAULT_LIMITS: QueryLimits = {
  maxQueryLength: 10_000,
  maxTokens: 2_000,
  maxDepth: 8,
  maxFields: 300,
  maxAliases: 20,
  maxDirectives: 20,
  // Two full pages: 20 aliased listApiKeys once made a 47 MB answer.
  maxListItems: 200,
  // A full page of 100 key pairs with 20 origins of the longest kind is about 4 MB.
  maxResponseBytes: 8 * 1024 * 1024,
}

type Cost = { depth: number; fields: number; aliases: number; directives: number }
const ZERO: Cost = { depth: 0, fields: 0, aliases: 0, directives: 0 }

/** Size of what executing the document would touch, computed without expanding it (memoised per fragment). */
export function measureDocument(document: DocumentNode): Cost {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def)
  const memo = new Map<string, Cost>()
  const visiting = new Set<string>()

  const fragmentCost = (name: string): Cost => {
    const known = memo.get(name)
    if (known) return known
    const fragment = fragments.get(name)
    // Unknown or cyclic fragments are reported by the standard validation rules.
    if (!fragment || visiting.has(name)) return ZERO
    visiting.add(name)
    const cost = selectionCost(fragment.selectionSet)
    visiting.delete(name)
    memo.set(name, cost)
    return cost
  }

  const selectionCost = (set: SelectionSetNode): Cost => {
    const total: Cost = { depth: 0, fields: 0, aliases: 0, directives: 0 }
    const add = (c: Cost, depth: number) => {
      total.depth = Math.max(total.depth, depth)
      total.fields += c.fields
      total.aliases += c.aliases
      total.directives += c.directives
    }
    for (const sel of set.selections) {
      total.directives += sel.directives?.length ?? 0
      if (sel.kind === Kind.FIELD) {
        total.fields += 1
        if (sel.alias) total.aliases += 1
        const child = sel.selectionSet ? selectionCost(sel.selectionSet) : ZERO
        const introspection = sel.name.value.startsWith('__')
        add(child, introspection ? 1 : 1 + child.depth)
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const child = selectionCost(sel.selectionSet)
        add(child, child.depth)
      } else {
        const child = fragmentCost(sel.name.value)
        add(child, child.depth)
      }
    }
    return total
  }

  const total: Cost = { depth: 0, fields: 0, aliases: 0, directives: 0 }
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue
    const c = selectionCost(def.selectionSet)
    total.depth = Math.max(total.depth, c.depth)
    total.fields += c.fields
    total.aliases += c.aliases
    total.directives += c.directives + (def.directives?.length ?? 0)
  }
  return total
}

const refused = (message: string) => new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } })

export function limitViolations(document: DocumentNode, limits: QueryLimits): GraphQLError[] {
  const cost = measureDocument(document)
  const errors: GraphQLError[] = []
  if (cost.depth > limits.maxDepth) errors.push(refused(`query depth ${cost.depth} exceeds the limit of ${limits.maxDepth}`))
  if (cost.fields > limits.maxFields)
    errors.push(refused(`query selects ${cost.fields} fields, more than the limit of ${limits.maxFields}`))
  if (cost.aliases > limits.maxAliases)
    errors.push(refused(`query uses ${cost.aliases} aliases, more than the limit of ${limits.maxAliases}`))
  if (cost.directives > limits.maxDirectives)
    errors.push(refused(`query uses ${cost.directives} directives, more than the limit of ${limits.maxDirectives}`))
  return errors
}

/**
 * Bounds what one request can make the server parse, validate and execute. Every check runs
 * before execution, so a refused query never reaches a resolver.
 */
export function useQueryLimits(limits: QueryLimits, options: { introspection: boolean }): Plugin {
  return {
    onParams({ params, setResult }) {
      if (typeof params.query === 'string' && params.query.length > limits.maxQueryLength) {
        setResult({ errors: [refused(`query is longer than ${limits.maxQueryLength} characters`)] })
      }
    },
    onParse({ setParseFn, parseFn }) {
      setParseFn((source, parseOptions) => parseFn(source, { ...parseOptions, maxTokens: limits.maxTokens }))
    },
    onValidate({ params, addValidationRule, setResult }) {
      // Measured before the standard rules run: those are costlier on a hostile document.
      const violations = limitViolations(params.documentAST, limits)
      if (violations.length > 0) return setResult(violations)
      if (!options.introspection) addValidationRule(NoSchemaIntrospectionCustomRule)
    },
  }
}

const tooLarge = (message: string) => new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } })

/** List rows a request has asked for so far, against `maxListItems`. One per request (in the context). */
export type ListBudget = { used: number; limit: number }

/**
 * Charges `items` list rows against the request's budget before they are read: a list resolver
 * calls it with the page size it is about to fetch. Past the budget that field fails with
 * BAD_USER_INPUT and reads nothing.
 */
export function chargeListItems(budget: ListBudget, items: number): void {
  if (budget.used + items > budget.limit) {
    throw new ApiError(
      'validation_failed',
      `this request asks for more than ${budget.limit} list items in all; ask for fewer (first) or use fewer aliases`
    )
  }
  budget.used += items
}

/** The last wall on what one request can make the server hold and send: the serialised result's size. */
export function useResponseSizeLimit(limits: QueryLimits): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || !result || typeof result !== 'object' || !('data' in result)) return
      const bytes = Buffer.byteLength(JSON.stringify(result))
      if (bytes > limits.maxResponseBytes) {
        setResult({
          errors: [
            tooLarge(`the response would be ${bytes} bytes, more than the limit of ${limits.maxResponseBytes}; ask for fewer items`),
          ],
        })
      }
    },
  }
}
