export {
  startToxiproxyServer,
  type StartedToxiproxyServer,
  type ToxiproxyServerOptions,
  type ProxyDefinition,
} from './server.ts';
export { TOXIPROXY_VERSION } from './api.ts';
