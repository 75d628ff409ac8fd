// What a request check (src/api/request-schema.ts) answers a refused body: the error body in
// Resend's shape, for the unit tests of routes' schemas.
import assert from 'node:assert/strict';
import { ApiError } from '../../src/api/errors.js';

type ErrorBody = { statusCode: number; name: string; message: string };

/** The error body `check` throws for `body`; fails the test if it accepts it. */
export function refusal(check: (body: unknown) => unknown, body: unknown): ErrorBody {
  try {
    check(body);
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return err.toBody();
  }
  assert.fail(`accepted ${JSON.stringify(body)}`);
}

export const invalid = (message: string): ErrorBody => ({ statusCode: 422, name: 'validation_error', message });
export const missing = (field: string): ErrorBody => ({ statusCode: 422, name: 'missing_required_field', message: `Missing \`${field}\` field.` });
