import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, generateOpenApi } from '../src/cli/openapi.ts';

describe('OpenAPI document', () => {
  it('matches the checked-in docs/openapi.json (run `npm run openapi` after changing a route)', async () => {
    const generated = await generateOpenApi();
    expect(JSON.parse(generated)).toEqual(JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')));
  });
});
