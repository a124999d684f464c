// Reading a model call's body as its API reads it, for the pre-authorisation and its worst case alike:
// Gemini's fields in both their spellings, and a count the meter takes only as a positive number.
import { obj, type Json } from './wire.js'

/** A Gemini field in both spellings its API reads: `fileData` and `file_data`. */
const spellings = (name: string): [string, string] => [
  name,
  name.replace(/[A-Z]/g, letter => `_${letter.toLowerCase()}`)
]

/** A Gemini field's values, in either spelling (both, when a body gives both). */
export const geminiFields = (json: Json | undefined, name: string): unknown[] =>
  spellings(name)
    .map(key => json?.[key])
    .filter(value => value !== undefined)

/** A Gemini generation setting in every spelling its API takes (`generationConfig.maxOutputTokens`, `generation_config.max_output_tokens`, mixed). */
export function geminiSettings(json: Json, name: 'maxOutputTokens' | 'candidateCount'): unknown[] {
  return geminiFields(json, 'generationConfig').flatMap(config => geminiFields(obj(config), name))
}

/** A count or a limit as the meter reads it: a positive finite number, rounded up; else undefined. */
export const positive = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : undefined
