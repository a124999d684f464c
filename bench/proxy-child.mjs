// The model proxy in a process of its own, so its memory is measured alone: `node proxy-child.mjs <module>
// <upstream>` imports the proxy from <module>, starts it, prints its URL and placeholder key as one JSON line.
const [module, upstream] = process.argv.slice(2)
const { startModelProxy } = await import(module)
const proxy = await startModelProxy({
  wire: 'anthropic-messages',
  upstream,
  apiKey: 'sk-bench',
  price: () => 0
})
process.stdout.write(`${JSON.stringify({ url: proxy.url, key: proxy.placeholderKey })}\n`)
process.stdin.resume()
process.stdin.on('end', () => void proxy.close().then(() => process.exit(0)))
