// Times in the record and status.json: ISO 8601, from the clock's milliseconds.
export const iso = (ms: number): string => new Date(ms).toISOString()
