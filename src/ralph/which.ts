// The program lookup is proc's (the isolated spawn needs it too); the format checks the agent with it.
export { which } from '../proc/which.js'
