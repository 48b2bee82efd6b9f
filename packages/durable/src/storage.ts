/** `@gnldev/durable/storage` (also `@gnldev/durable/postgres`): the journal adapters. Built from lib/durable/storage. */
export * from '../../../lib/durable/storage/index';
