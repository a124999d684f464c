// Bottleneck's light build, the one @octokit/plugin-throttling uses, ships without typings of its own.
declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck'
  export default Bottleneck
}
