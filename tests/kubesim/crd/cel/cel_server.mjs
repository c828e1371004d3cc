// kube-sim's CEL evaluator: compiles and evaluates the x-kubernetes-validations rules of a
// CustomResourceDefinition schema as kube-apiserver does (apiextensions-apiserver
// pkg/apiserver/schema/cel), with a real CEL implementation (@marcbachmann/cel-js).
//
// Protocol: one JSON request per line on stdin, one JSON answer per line on stdout, in order.
//   {"id", "op": "compile", "key", "schema"}
//       -> {"id", "errors": [{"path", "field", "detail"}]}   (rules that do not compile)
//   {"id", "op": "validate", "key", "schema"?, "object", "old"?}
//       -> {"id", "errors": [{"type", "field", "value", "detail"}]} | {"id", "unknownKey": true}
// `key` names a schema; the schema is sent with the first request for a key and cached.
import {Environment, Optional} from '@marcbachmann/cel-js'
import {createInterface} from 'node:readline'

// CEL reserved words and the escaping Kubernetes applies to property names (apiserver/pkg/cel/escaping.go).
const reserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for',
  'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while'])

function escapeName(name) {
  if (reserved.has(name)) return `__${name}__`
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return undefined
  return name.replaceAll('__', '__underscores__').replaceAll('.', '__dot__').replaceAll('-', '__dash__')
    .replaceAll('/', '__slash__')
}

const isIntOrString = (s) => s && s['x-kubernetes-int-or-string'] === true

// The CEL type of a schema node (apiserver/pkg/cel/common/schemas.go SchemaDeclType), registering
// an object type per object node. Returns undefined for nodes rules cannot see.
class TypeBuilder {
  constructor(env) {
    this.env = env
    this.count = 0
    this.byNode = new Map()
  }

  declare(schema, isResourceRoot) {
    if (!schema || typeof schema !== 'object') return undefined
    const key = isResourceRoot ? 'root' : 'plain'
    let cached = this.byNode.get(schema)
    if (cached && cached[key] !== undefined) return cached[key]
    const t = this.#declare(schema, isResourceRoot)
    if (!cached) this.byNode.set(schema, (cached = {}))
    cached[key] = t
    return t
  }

  #declare(schema, isResourceRoot) {
    if (isIntOrString(schema)) return 'dyn'
    switch (schema.type) {
      case 'array': {
        const item = schema.items && this.declare(schema.items, schema.items['x-kubernetes-embedded-resource'] === true)
        return item === undefined ? undefined : `list<${item}>`
      }
      case 'object': {
        const ap = schema.additionalProperties
        if (ap && typeof ap === 'object') {
          const value = this.declare(ap, ap['x-kubernetes-embedded-resource'] === true)
          return value === undefined ? undefined : `map<string, ${value}>`
        }
        const fields = {}
        for (const [name, prop] of Object.entries(schema.properties || {})) {
          const t = this.declare(prop, prop['x-kubernetes-embedded-resource'] === true)
          const escaped = escapeName(name)
          if (t !== undefined && escaped !== undefined) fields[escaped] = t
        }
        if (isResourceRoot) {
          // apiVersion, kind, metadata.name and metadata.generateName are always visible at a resource root.
          fields.apiVersion = 'string'
          fields.kind = 'string'
          fields.metadata = this.#register({name: 'string', generateName: 'string'})
        }
        return this.#register(fields)
      }
      case 'string':
        if (schema.format === 'byte') return 'bytes'
        // A timestamp, typed dyn: the library cannot declare a timestamp field of an object type.
        if (schema.format === 'date-time' || schema.format === 'date') return 'dyn'
        return 'string'
      case 'boolean':
        return 'bool'
      case 'number':
        return 'double'
      case 'integer':
        return 'int'
    }
    return undefined
  }

  #register(fields) {
    const name = `Object${++this.count}`
    this.env.registerType(name, {fields})
    return name
  }
}

// A JSON value as the CEL value of its schema (apiserver/pkg/cel/common/values.go).
function toCel(schema, value, isResourceRoot) {
  if (value === null || value === undefined) return null
  if (!schema || isIntOrString(schema)) return toDyn(value)
  switch (schema.type) {
    case 'integer':
      return Number.isInteger(value) ? BigInt(value) : value
    case 'number':
      return value
    case 'string':
      if (typeof value !== 'string') return value
      if (schema.format === 'byte') return Uint8Array.from(Buffer.from(value, 'base64'))
      if (schema.format === 'date-time' || schema.format === 'date') return new Date(value)
      return value
    case 'array':
      return Array.isArray(value) ? value.map((v) => toCel(schema.items, v, schema.items?.['x-kubernetes-embedded-resource'] === true)) : value
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value
      const ap = schema.additionalProperties
      if (ap && typeof ap === 'object') {
        const m = new Map()
        for (const [k, v] of Object.entries(value)) m.set(k, toCel(ap, v, ap['x-kubernetes-embedded-resource'] === true))
        return m
      }
      const out = {}
      for (const [name, prop] of Object.entries(schema.properties || {})) {
        const escaped = escapeName(name)
        // A null field is absent to the rules (has() is false).
        if (escaped !== undefined && name in value && value[name] !== null)
          out[escaped] = toCel(prop, value[name], prop['x-kubernetes-embedded-resource'] === true)
      }
      if (isResourceRoot) {
        if ('apiVersion' in value) out.apiVersion = value.apiVersion
        if ('kind' in value) out.kind = value.kind
        const md = value.metadata && typeof value.metadata === 'object' ? value.metadata : {}
        const meta = {}
        if (typeof md.name === 'string') meta.name = md.name
        if (typeof md.generateName === 'string') meta.generateName = md.generateName
        out.metadata = meta
      }
      return out
    }
  }
  return toDyn(value)
}

function toDyn(value) {
  if (Number.isInteger(value)) return BigInt(value)
  if (Array.isArray(value)) return value.map(toDyn)
  if (value && typeof value === 'object') {
    const m = new Map()
    for (const [k, v] of Object.entries(value)) m.set(k, toDyn(v))
    return m
  }
  return value
}

// cel-go's error rendering: "ERROR: <input>:line:col: message" plus the source line and a caret.
function celGoError(source, err) {
  let summary = (err.summary ?? err.message ?? String(err)).split('\n')[0]
  const field = /^No such key: (.*)$/.exec(summary)
  if (field) summary = `undefined field '${field[1]}'`
  let start = err.range?.start ?? 0
  // cel-go places a field selection at its '.'.
  if (field && source[start - 1] === '.') start -= 1
  const before = source.slice(0, start)
  const line = before.split('\n').length
  const col = start - (before.lastIndexOf('\n') + 1)
  const text = source.split('\n')[line - 1] ?? ''
  return `ERROR: <input>:${line}:${col + 1}: ${summary}\n | ${text}\n | ${'.'.repeat(col)}^`
}

// A rule's fieldPath names declared fields: ".a.b", ".a['b.c']", ".list[0]" (apiextensions ValidFieldPath).
function validFieldPath(schema, fieldPath) {
  let node = schema
  const re = /\.([A-Za-z_][A-Za-z0-9_-]*)|\['([^']*)'\]|\[(\d+)\]/y
  let i = 0
  while (i < fieldPath.length) {
    re.lastIndex = i
    const m = re.exec(fieldPath)
    if (!m || !node) return false
    i = re.lastIndex
    if (m[3] !== undefined) {
      node = node.items
      continue
    }
    const name = m[1] ?? m[2]
    if (node.properties && node.properties[name]) node = node.properties[name]
    else if (node.additionalProperties && typeof node.additionalProperties === 'object') node = node.additionalProperties
    else return false
  }
  return true
}

function usesIdent(ast, name) {
  let found = false
  const walk = (n) => {
    if (found || n === null || typeof n !== 'object') return
    if (Array.isArray(n)) return n.forEach(walk)
    if (n.op === 'id' && n.args === name) {
      found = true
      return
    }
    walk(n.args)
  }
  walk(ast)
  return found
}

// Every schema node with rules, compiled: [{schema, rules: [{rule, program, message, usesOldSelf, error}]}].
class CompiledSchema {
  constructor(schema) {
    this.schema = schema
    this.base = new Environment({enableOptionalTypes: true, homogeneousAggregateLiterals: false})
    this.types = new TypeBuilder(this.base)
    this.nodes = new Map()  // schema node -> compiled rules
    this.errors = []
    this.#collect(schema, 'openAPIV3Schema', true)
  }

  #collect(schema, path, isResourceRoot) {
    if (!schema || typeof schema !== 'object') return
    const rules = schema['x-kubernetes-validations']
    if (Array.isArray(rules) && rules.length > 0) {
      const selfType = this.types.declare(schema, isResourceRoot)
      const compiled = rules.map((rule, i) => this.#compileRule(rule, selfType, `${path}.x-kubernetes-validations[${i}]`, schema))
      this.nodes.set(schema, {compiled, isResourceRoot})
    }
    for (const [name, prop] of Object.entries(schema.properties || {}))
      this.#collect(prop, `${path}.properties[${name}]`, prop['x-kubernetes-embedded-resource'] === true)
    if (schema.items && typeof schema.items === 'object')
      this.#collect(schema.items, `${path}.items`, schema.items['x-kubernetes-embedded-resource'] === true)
    const ap = schema.additionalProperties
    if (ap && typeof ap === 'object')
      this.#collect(ap, `${path}.additionalProperties`, ap['x-kubernetes-embedded-resource'] === true)
  }

  #compileRule(rule, selfType, path, schema) {
    const out = {rule, path}
    if (typeof rule.fieldPath === 'string' && rule.fieldPath !== '' && !validFieldPath(schema, rule.fieldPath))
      this.errors.push({path, field: 'fieldPath', value: rule.fieldPath, detail: 'fieldPath must be a valid path'})
    if (selfType === undefined) {
      this.errors.push({path, field: 'rule', detail: 'compilation failed: rules may not be applied to this schema'})
      out.error = true
      return out
    }
    const text = typeof rule.rule === 'string' ? rule.rule : ''
    const env = this.base.clone()
    env.registerVariable('self', selfType)
    const optionalOld = rule.optionalOldSelf === true
    env.registerVariable('oldSelf', optionalOld ? `optional<${selfType}>` : selfType)
    const check = (source, field, want) => {
      let parsed
      try {
        parsed = env.parse(source)
      } catch (e) {
        this.errors.push({path, field, detail: `${field === 'rule' ? '' : 'messageExpression '}compilation failed: ${celGoError(source, e)}`})
        return undefined
      }
      const result = env.check(source)
      if (!result.valid) {
        this.errors.push({path, field, detail: `${field === 'rule' ? '' : 'messageExpression '}compilation failed: ${celGoError(source, result.error)}`})
        return undefined
      }
      const type = String(result.type)
      if (type !== want && type !== 'dyn') {
        this.errors.push({path, field, detail: field === 'rule' ? 'compilation failed: cel expression must evaluate to a bool'
          : 'must evaluate to a string'})
        return undefined
      }
      return parsed
    }
    out.program = check(text, 'rule', 'bool')
    if (!out.program) {
      out.error = true
      return out
    }
    out.usesOldSelf = usesIdent(out.program.ast, 'oldSelf')
    out.optionalOldSelf = optionalOld
    if (typeof rule.messageExpression === 'string' && rule.messageExpression !== '') {
      out.messageProgram = check(rule.messageExpression, 'messageExpression', 'string')
      if (!out.messageProgram) out.error = true
    }
    return out
  }
}

const cache = new Map()

// apiextensions-apiserver's ruleErrorString / ruleMessageOrDefault.
const ruleErrorString = (rule) => (rule.message ? rule.message.trim() : String(rule.rule ?? '').trim())
const ruleMessageOrDefault = (rule) => (rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`)

function deepEqual(a, b) {
  if (a === b) return true
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]))
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]))
}

function childPath(path, name) {
  return path === '' ? name : `${path}.${name}`
}

// field.Path's rendering: the root (a nil path) prints as "<nil>".
const shown = (path) => (path === '' ? '<nil>' : path)

function evaluationMessage(e) {
  const summary = (e?.summary ?? e?.message ?? String(e)).split('\n')[0]
  return summary.charAt(0).toLowerCase() + summary.slice(1)
}

// Walks the object beside its schema, evaluating the rules of each node. `old` is the correlated
// old value (undefined when there is none: a create, a new list item, an atomic list).
function validateNode(compiled, schema, value, old, path, isResourceRoot, errors) {
  if (!schema || typeof schema !== 'object' || value === undefined || value === null) return
  const node = compiled.nodes.get(schema)
  // Ratcheting (CRDValidationRatcheting, on by default in 1.32): an unchanged value keeps passing.
  const unchanged = old !== undefined && deepEqual(value, old)
  if (node) {
    const self = toCel(schema, value, isResourceRoot)
    const oldSelf = old === undefined ? undefined : toCel(schema, old, isResourceRoot)
    for (const c of node.compiled) {
      if (c.error || !c.program) continue
      if (c.usesOldSelf && old === undefined && !c.optionalOldSelf) continue
      if (unchanged && !c.usesOldSelf) continue
      const ctx = {self}
      if (c.usesOldSelf) ctx.oldSelf = c.optionalOldSelf ? (old === undefined ? Optional.none() : Optional.of(oldSelf)) : oldSelf
      const sType = schema.type ?? ''
      let result
      try {
        result = c.program(ctx)
      } catch (e) {
        const msg = evaluationMessage(e)
        if (msg.startsWith('no such overload') || msg.startsWith('found no matching overload'))
          errors.push({type: 'FieldValueInvalid', field: shown(path), value: sType,
            detail: `'${msg}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(c.rule)}`})
        else errors.push({type: 'FieldValueInvalid', field: shown(path), value: sType,
          detail: `${msg} evaluating rule: ${ruleErrorString(c.rule)}`})
        continue
      }
      if (result === true) continue
      let field = shown(path)
      const fp = typeof c.rule.fieldPath === 'string' ? c.rule.fieldPath.replace(/^\./, '') : ''
      if (fp) field = childPath(path, fp)
      let detail = ruleMessageOrDefault(c.rule)
      if (c.messageProgram) {
        try {
          const m = c.messageProgram(ctx)
          if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) detail = m
        } catch {
          // A messageExpression that fails falls back to message (or the rule).
        }
      }
      const reason = c.rule.reason ?? 'FieldValueInvalid'
      errors.push({type: reason, field, value: sType, detail})
    }
  }
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return
      const oldObj = old && typeof old === 'object' && !Array.isArray(old) ? old : undefined
      const ap = schema.additionalProperties
      if (ap && typeof ap === 'object') {
        for (const [k, v] of Object.entries(value))
          validateNode(compiled, ap, v, oldObj?.[k], childPath(path, k), ap['x-kubernetes-embedded-resource'] === true, errors)
        return
      }
      for (const [name, prop] of Object.entries(schema.properties || {})) {
        if (!(name in value)) continue
        validateNode(compiled, prop, value[name], oldObj?.[name], childPath(path, name),
          prop['x-kubernetes-embedded-resource'] === true, errors)
      }
      return
    }
    case 'array': {
      if (!Array.isArray(value) || !schema.items) return
      const listType = schema['x-kubernetes-list-type']
      const keys = schema['x-kubernetes-list-map-keys'] || []
      const oldList = Array.isArray(old) ? old : []
      for (let i = 0; i < value.length; i++) {
        let oldItem
        if (listType === 'map') {
          const v = value[i]
          oldItem = oldList.find((o) => o && v && keys.every((k) => deepEqual(o[k], v[k])))
        } else if (listType === 'set') {
          oldItem = oldList.find((o) => deepEqual(o, value[i]))
        }
        validateNode(compiled, schema.items, value[i], oldItem, `${path}[${i}]`,
          schema.items['x-kubernetes-embedded-resource'] === true, errors)
      }
    }
  }
}

function handle(req) {
  if (req.op === 'compile') {
    const compiled = new CompiledSchema(req.schema)
    cache.set(req.key, compiled)
    return {errors: compiled.errors}
  }
  if (req.op === 'validate') {
    let compiled = cache.get(req.key)
    if (!compiled) {
      if (!req.schema) return {unknownKey: true}
      compiled = new CompiledSchema(req.schema)
      cache.set(req.key, compiled)
    }
    const errors = []
    validateNode(compiled, compiled.schema, req.object, req.old ?? undefined, '', true, errors)
    return {errors}
  }
  return {error: `unknown op ${req.op}`}
}

const rl = createInterface({input: process.stdin, crlfDelay: Infinity})
rl.on('line', (line) => {
  let id = null
  let answer
  try {
    const req = JSON.parse(line)
    id = req.id ?? null
    answer = handle(req)
  } catch (e) {
    answer = {error: String(e?.stack ?? e)}
  }
  process.stdout.write(JSON.stringify({id, ...answer}) + '\n')
})
rl.on('close', () => process.exit(0))
