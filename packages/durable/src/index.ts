/** `@gnldev/durable`: the runtime core (runDurable, gnlTool, errors, the Journal port). Built from lib/durable. */
export * from '../../../lib/durable/index';
