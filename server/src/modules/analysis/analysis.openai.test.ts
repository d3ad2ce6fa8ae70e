import { AnalysisTexts } from '@medshare/contracts';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, login, newUser } from '../../../test/harness.ts';
import { fixture, uploadFile } from '../images/images.test-helpers.ts';
import { SCHEMA_NAME, responseJsonSchema } from './providers/openai.ts';

/** A stand-in OpenAI-compatible endpoint: answers POST /v1/chat/completions as `reply` says. */
type Reply = (res: ServerResponse) => void;
let reply: Reply;
type Part = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
interface ChatRequest {
  model: string;
  messages: [{ role: 'system'; content: string }, { role: 'user'; content: Part[] }];
  response_format: { type: string; json_schema: { name: string; strict: boolean; schema: Record<string, unknown> } };
}
const received: Array<{ url: string; headers: IncomingMessage['headers']; body: ChatRequest }> = [];
let server: Server;

const chat = (content: string) => (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    }),
  );
};
const valid = {
  description: 'A **frontal** chest radiograph with clear lung fields.',
  differentialDiagnosis: [
    { condition: '**Normal study**', confidence: 0.82 },
    { condition: 'Early consolidation', confidence: 0.11 },
  ],
  treatment: ['No treatment suggested by the **image** alone'],
  followUp: ['Correlate clinically'],
  warnings: ['Single view only'],
  confidence: 0.7,
};

let t: TestApp;
let doc: SignedIn;
let patient: SignedIn;
let jpgId: string;
let ctId: string;
const CAPTION = 'Chest X-ray of Zubaida Rahimtoola 2026-03-14 MRN 448812';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      reply(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  t = await createTestApp((c) => {
    c.analysis = {
      provider: 'openai',
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: 'sk-test-key',
      model: 'vision-test-1',
      timeoutMs: 500,
    };
  });
  doc = await newUser(t, 'healthProvider');
  patient = await newUser(t, 'patient', { firstname: 'Zubaida', lastname: 'Rahimtoola' });
  const jpg = await uploadFile(t, doc.token, fixture('other/photo_hopper_portrait.jpg'), {
    caption: CAPTION,
    patientId: patient.user.id,
  });
  jpgId = jpg.json().data.id;
  ctId = (
    await uploadFile(t, doc.token, fixture('dicom/ct_explicit_le_16bit_signed_small.dcm'), { caption: CAPTION })
  ).json().data.id;
});
afterAll(async () => {
  await t?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});
beforeEach(async () => {
  received.length = 0;
  // A fresh session per case: runs are limited to ten a minute per session, and this file makes more.
  doc = await login(t, doc.user.email, doc.password);
});

const rerun = (id: string) => t.request({ method: 'POST', url: `/api/analysis/${id}/run`, token: doc.token });
const stored = async (id: string) =>
  (await t.app.ctx.database.db.selectFrom('analyses').select('id').where('image_id', '=', id).execute()).length;

describe('openai provider', () => {
  it('stores and returns a valid answer with the ** markers stripped, then reuses it without a call', async () => {
    reply = chat(JSON.stringify(valid));
    const res = await t.request({ method: 'GET', url: `/api/analysis/${jpgId}`, token: doc.token });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      imageId: jpgId,
      provider: 'openai',
      model: 'vision-test-1',
      reused: false,
      description: 'A frontal chest radiograph with clear lung fields.',
      differentialDiagnosis: [
        { condition: 'Normal study', confidence: 0.82 },
        { condition: 'Early consolidation', confidence: 0.11 },
      ],
      treatment: ['No treatment suggested by the image alone'],
      confidence: 0.7,
      disclaimer: AnalysisTexts.disclaimer,
    });
    expect(JSON.stringify(data)).not.toContain('**');
    expect(await stored(jpgId)).toBe(1);
    const again = await t.request({ method: 'GET', url: `/api/analysis/${jpgId}`, token: doc.token });
    expect(again.json().data).toMatchObject({ id: data.id, reused: true });
    expect(received).toHaveLength(1);
  });

  it('sends the model, the bearer key, a strict json_schema from the contract and a PNG data URL', async () => {
    reply = chat(JSON.stringify(valid));
    expect((await rerun(jpgId)).statusCode).toBe(201);
    const [call] = received;
    expect(call!.url).toBe('/v1/chat/completions');
    expect(call!.headers.authorization).toBe('Bearer sk-test-key');
    expect(call!.body.model).toBe('vision-test-1');
    expect(call!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: SCHEMA_NAME, strict: true, schema: responseJsonSchema() },
    });
    expect(call!.body.response_format.json_schema.schema.additionalProperties).toBe(false);
    expect(JSON.stringify(call!.body.response_format)).not.toContain('$schema');
    const image = call!.body.messages[1].content.find((p) => p.type === 'image_url');
    const url = image?.type === 'image_url' ? image.image_url.url : '';
    expect(url.startsWith('data:image/png;base64,')).toBe(true);
    const meta = await sharp(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 128, height: 128 });
  });

  it('sends no PHI: no name, e-mail, id, caption or date appears anywhere in the request', async () => {
    reply = chat(JSON.stringify(valid));
    await rerun(jpgId);
    const [system, user] = received[0]!.body.messages;
    const text = JSON.stringify([system.content, user.content.filter((p) => p.type === 'text')]);
    for (const secret of [
      'Zubaida',
      'Rahimtoola',
      patient.user.email,
      patient.user.id,
      doc.user.id,
      jpgId,
      'MRN',
      '2026',
      '448812',
    ])
      expect(text, secret).not.toContain(secret);
    expect(text).toContain('128 x 128 pixels');
  });

  it('renders a DICOM to PNG first and names only modality and size', async () => {
    reply = chat(JSON.stringify(valid));
    expect((await rerun(ctId)).statusCode).toBe(201);
    const [text, image] = received[0]!.body.messages[1].content;
    expect(text).toEqual({ type: 'text', text: 'Analyse this medical image. Modality: CT. Size: 128 x 128 pixels.' });
    expect(image?.type === 'image_url' && image.image_url.url.startsWith('data:image/png;base64,')).toBe(true);
  });

  it('answers 502 and stores nothing when the content is not JSON', async () => {
    const before = await stored(jpgId);
    reply = chat('Here is my analysis: **looks fine**');
    const res = await rerun(jpgId);
    expect(res.statusCode).toBe(502);
    expect(res.json().message).toBe(AnalysisTexts.badProviderAnswer);
    expect(await stored(jpgId)).toBe(before);
  });

  it('answers 502 when the body is not JSON at all', async () => {
    reply = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"choices": [');
    };
    expect((await rerun(jpgId)).statusCode).toBe(502);
  });

  it('answers 502 and stores nothing when the JSON violates the schema', async () => {
    const before = await stored(jpgId);
    for (const bad of [
      { ...valid, confidence: 1.7 },
      { ...valid, differentialDiagnosis: [{ condition: 'x' }] },
      { description: valid.description },
    ]) {
      reply = chat(JSON.stringify(bad));
      const res = await rerun(jpgId);
      expect(res.statusCode).toBe(502);
    }
    expect(await stored(jpgId)).toBe(before);
  });

  it('answers 502 when the provider answers 500 (and 401), naming the status', async () => {
    for (const status of [500, 401]) {
      reply = (res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'boom' } }));
      };
      const res = await rerun(jpgId);
      expect(res.statusCode).toBe(502);
      expect(res.json().message).toBe(AnalysisTexts.providerFailed(status));
    }
  });

  it('answers 504 and stores nothing when the provider does not answer within ANALYSIS_TIMEOUT_MS', async () => {
    const before = await stored(jpgId);
    reply = (res) => {
      setTimeout(() => chat(JSON.stringify(valid))(res), 1_500).unref();
    };
    const started = Date.now();
    const res = await rerun(jpgId);
    expect(res.statusCode).toBe(504);
    expect(Date.now() - started).toBeLessThan(1_400);
    expect(await stored(jpgId)).toBe(before);
  });

  it('answers 502 when the model refuses', async () => {
    reply = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' } }],
        }),
      );
    };
    const res = await rerun(jpgId);
    expect(res.statusCode).toBe(502);
    expect(res.json().message).toBe(AnalysisTexts.providerRefused);
  });

  it('audits failed runs with the provider and the error code only', async () => {
    reply = chat('not json');
    await rerun(jpgId);
    const row = await t.app.ctx.database.db
      .selectFrom('audit_logs')
      .selectAll()
      .where('action_type', '=', 'analysis.run')
      .where('status', '=', 'failure')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(row.reason).toBe(`provider=openai model=vision-test-1 image=${jpgId} error=analysis_bad_answer`);
  });
});
