#!/usr/bin/env node
// Compiles contracts/*.sol with solcjs (standard JSON) into build/contracts/<Name>.json
// = {"abi": [...], "bytecode": "0x..."}. Run from anywhere; paths are relative to the repo root.
//
// Loading solcjs takes seconds, so re-runs are skipped when a stamp of everything that affects
// the output (sources, settings, solc and OpenZeppelin versions, this script) is unchanged.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const nodeModules = path.join(root, 'node_modules')
const contractsDir = path.join(root, 'contracts')
const outDir = path.join(root, 'build', 'contracts')
const stampPath = path.join(outDir, '.stamp.json')

function packageVersion(name) {
  const file = path.join(nodeModules, name, 'package.json')
  if (!fs.existsSync(file)) {
    console.error(`${name} is not installed in node_modules: run \`make deps\``)
    process.exit(2)
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')).version
}

const sources = {}
for (const file of fs.readdirSync(contractsDir).filter((f) => f.endsWith('.sol')).sort()) {
  sources[`contracts/${file}`] = { content: fs.readFileSync(path.join(contractsDir, file), 'utf8') }
}

const input = {
  language: 'Solidity',
  sources,
  settings: {
    // Pinned rather than solc's default so bytecode does not change if the default moves;
    // anvil's default (latest) hardfork supports it.
    evmVersion: 'cancun',
    optimizer: { enabled: true, runs: 200 },
    // Only our own files: OpenZeppelin's contracts need no artifacts.
    outputSelection: Object.fromEntries(Object.keys(sources).map((f) => [f, { '*': ['abi', 'evm.bytecode.object'] }])),
  },
}

const hash = createHash('sha256')
  .update(JSON.stringify(input))
  .update(`solc@${packageVersion('solc')} oz@${packageVersion('@openzeppelin/contracts')}`)
  .update(`aa08@${packageVersion('@account-abstraction/contracts-v08')}`)
  .update(fs.readFileSync(fileURLToPath(import.meta.url))) // this script decides the artifact format
  .digest('hex')

function stampIsFresh() {
  try {
    const stamp = JSON.parse(fs.readFileSync(stampPath, 'utf8'))
    return stamp.hash === hash && stamp.artifacts.every((f) => fs.existsSync(path.join(outDir, f)))
  } catch {
    return false
  }
}

// Write-then-rename so a concurrent reader (another test run, the dev stack) never sees half a file.
function writeAtomic(file, text) {
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, text)
  fs.renameSync(tmp, file)
}

// Imports that are not our own sources (e.g. @openzeppelin/...) come from node_modules.
function findImports(importPath) {
  const resolved = path.resolve(nodeModules, importPath)
  if (!resolved.startsWith(nodeModules + path.sep)) return { error: `refusing import outside node_modules: ${importPath}` }
  if (!fs.existsSync(resolved)) return { error: `not found: ${importPath} (run \`make deps\`?)` }
  return { contents: fs.readFileSync(resolved, 'utf8') }
}

if (stampIsFresh()) process.exit(0)

const solc = (await import('solc')).default
const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }))

let failed = false
for (const err of output.errors ?? []) {
  console.error(err.formattedMessage ?? err.message)
  if (err.severity === 'error') failed = true
}
if (failed) process.exit(1)

fs.mkdirSync(outDir, { recursive: true })
const artifacts = []
for (const contracts of Object.values(output.contracts ?? {})) {
  for (const [name, contract] of Object.entries(contracts)) {
    const bytecode = contract.evm.bytecode.object
    if (!bytecode) continue // abstract contracts and interfaces cannot be deployed
    const file = `${name}.json`
    if (artifacts.includes(file)) throw new Error(`two contracts are named ${name}`)
    writeAtomic(path.join(outDir, file), JSON.stringify({ abi: contract.abi, bytecode: `0x${bytecode}` }, null, 2) + '\n')
    artifacts.push(file)
  }
}
if (artifacts.length === 0) {
  console.error('no deployable contracts found in contracts/')
  process.exit(1)
}
// Drop artifacts of contracts that no longer exist, so nothing deploys stale bytecode.
for (const file of fs.readdirSync(outDir)) {
  if (file.endsWith('.json') && !file.startsWith('.') && !artifacts.includes(file)) fs.rmSync(path.join(outDir, file))
}
writeAtomic(stampPath, JSON.stringify({ hash, solc: solc.version(), artifacts }, null, 2) + '\n')
console.log(`compiled ${artifacts.length} contracts with solc ${solc.version()} into ${path.relative(root, outDir)}/`)
