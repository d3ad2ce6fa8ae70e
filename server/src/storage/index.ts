import { join } from 'node:path';
import type { Config } from '../config.ts';
import { createFsStorage } from './fs-storage.ts';
import { createS3Storage } from './s3-storage.ts';
import type { BlobStorage } from './storage.ts';

export function createStorage(config: Config): BlobStorage {
  if (config.storage.driver === 's3') return createS3Storage(config.storage.s3);
  return createFsStorage(join(config.dataDir, 'blobs'));
}
