// A tiny module with two bugs for the example loop to fix.
export function add(a, b) {
  return a - b
}

export function multiply(a, b) {
  return a + b
}
