import type { Readable } from 'node:stream';
import { type BlobInfo, type BlobStorage, BlobNotFoundError, assertBlobKey } from './storage.ts';

export interface S3Settings {
  endpoint: string | null;
  region: string;
  bucket: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
  /** Prefix inside the bucket, so the bucket may be shared. */
  prefix: string;
}

/**
 * The AWS SDK, loaded when the first S3 store is made: a server on the file system never loads it
 * (5.7 MB of heap that every full collection would mark: `bench/RESULTS.md` › What the main heap holds).
 */
async function loadSdk() {
  const [s3, storage] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
  return { ...s3, Upload: storage.Upload };
}

/** Any S3-compatible store. A put is a multipart upload that is aborted on any error. */
export function createS3Storage(s: S3Settings): BlobStorage {
  // The SDK and the client, made once; seen by the first call that awaits them, never an unhandled rejection meanwhile.
  const ready = loadSdk().then((sdk) => ({
    sdk,
    client: new sdk.S3Client({
      region: s.region,
      ...(s.endpoint ? { endpoint: s.endpoint } : {}),
      forcePathStyle: s.forcePathStyle,
      // Checksums only where S3 requires them: streamed bodies stay plain (no aws-chunked framing).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(s.accessKeyId && s.secretAccessKey
        ? { credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } }
        : {}),
    }),
  }));
  ready.catch(() => undefined);
  const full = (key: string) => `${s.prefix}${key}`;

  return {
    kind: 's3',

    async put(key: string, body: Readable) {
      assertBlobKey(key);
      const {
        client,
        sdk: { Upload, DeleteObjectCommand },
      } = await ready;
      let bytes = 0;
      body.on('data', (c: Buffer) => {
        bytes += c.length;
      });
      // An error raised by the body must end the upload even if the SDK is waiting on a part.
      let bodyError: unknown = null;
      const upload = new Upload({
        client,
        params: { Bucket: s.bucket, Key: full(key), Body: body, ContentType: 'application/octet-stream' },
        queueSize: 2,
        partSize: 8 * 1024 * 1024,
        leavePartsOnError: false,
      });
      body.once('error', (err) => {
        bodyError = err;
        void upload.abort().catch(() => undefined);
      });
      try {
        await upload.done();
      } catch (err) {
        await client.send(new DeleteObjectCommand({ Bucket: s.bucket, Key: full(key) })).catch(() => undefined);
        throw bodyError ?? err;
      }
      if (bodyError) {
        await client.send(new DeleteObjectCommand({ Bucket: s.bucket, Key: full(key) })).catch(() => undefined);
        throw bodyError;
      }
      return { bytes };
    },

    async get(key: string) {
      assertBlobKey(key);
      const {
        client,
        sdk: { GetObjectCommand, NoSuchKey },
      } = await ready;
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: s.bucket, Key: full(key) }));
        if (!out.Body) throw new BlobNotFoundError(key);
        return out.Body as Readable;
      } catch (err) {
        if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey')
          throw new BlobNotFoundError(key);
        throw err;
      }
    },

    async delete(key: string) {
      assertBlobKey(key);
      const {
        client,
        sdk: { DeleteObjectCommand },
      } = await ready;
      await client.send(new DeleteObjectCommand({ Bucket: s.bucket, Key: full(key) }));
    },

    async *list(): AsyncIterable<BlobInfo> {
      const {
        client,
        sdk: { ListObjectsV2Command },
      } = await ready;
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: s.bucket, Prefix: s.prefix, ContinuationToken: token, MaxKeys: 1000 }),
        );
        for (const o of page.Contents ?? []) {
          if (o.Key && o.LastModified) yield { key: o.Key.slice(s.prefix.length), modifiedAt: o.LastModified };
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },

    async removeStalePartials(before: Date) {
      let removed = 0;
      const {
        client,
        sdk: { ListMultipartUploadsCommand, AbortMultipartUploadCommand },
      } = await ready;
      try {
        const out = await client.send(new ListMultipartUploadsCommand({ Bucket: s.bucket, Prefix: s.prefix }));
        for (const u of out.Uploads ?? []) {
          if (u.Key && u.UploadId && u.Initiated && u.Initiated < before) {
            await client.send(new AbortMultipartUploadCommand({ Bucket: s.bucket, Key: u.Key, UploadId: u.UploadId }));
            removed++;
          }
        }
      } catch (err) {
        // Some S3-compatible stores do not implement listing multipart uploads; their own
        // lifecycle rules clean up instead.
        if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 501) throw err;
      }
      return removed;
    },

    async check() {
      const {
        client,
        sdk: { HeadBucketCommand },
      } = await ready;
      await client.send(new HeadBucketCommand({ Bucket: s.bucket }));
    },

    close() {
      void ready.then(({ client }) => client.destroy()).catch(() => undefined);
    },
  };
}
