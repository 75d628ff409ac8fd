// The one error catalogue: every error Postline returns over HTTP, with Resend's `name`
// and status. Concepts throw `ApiError`; http/ turns it into `{statusCode, message, name}`.
// Names follow the official SDK's RESEND_ERROR_CODE_KEY (see resend-compat-notes §3).

const ERRORS = {
  invalid_idempotency_key: { status: 400, description: 'Idempotency-Key empty or longer than 256 characters' },
  validation_error: { status: 422, description: 'A field failed validation (403 for domain and sandbox rules)' },
  missing_required_field: { status: 422, description: 'A required field is absent' },
  invalid_parameter: { status: 422, description: 'A path or query parameter is malformed' },
  invalid_attachment: { status: 422, description: 'An attachment has neither content nor path' },
  invalid_from_address: { status: 422, description: 'The from address is malformed' },
  invalid_access: { status: 422, description: 'API key permission is not full_access or sending_access' },
  invalid_region: { status: 422, description: 'Unknown domain region' },
  missing_api_key: { status: 401, description: 'No Authorization header' },
  restricted_api_key: { status: 401, description: 'A sending-only key used outside sending' },
  invalid_api_key: { status: 403, description: 'The API key is unknown' },
  invalid_metrics_token: { status: 401, description: '/metrics without POSTLINE_METRICS_TOKEN as its bearer token, or with another' },
  metrics_loopback_only: { status: 403, description: '/metrics from a client not on loopback while POSTLINE_METRICS_TOKEN is unset' },
  invalid_credentials: { status: 401, description: 'Dashboard sign-in: no user with this address and password' },
  invalid_session: { status: 401, description: 'Dashboard: the session cookie is unknown, expired or signed out, or a session route was called without one' },
  invalid_csrf_token: { status: 403, description: "Dashboard: a change without the session's X-CSRF-Token, or a sign-in from another origin" },
  invalid_password_link: { status: 410, description: 'Dashboard: a set-password link that expired or was used' },
  not_found: { status: 404, description: 'No such resource in this account, or no such route' },
  method_not_allowed: { status: 405, description: 'The route exists but not for this method' },
  invalid_idempotent_request: { status: 409, description: 'Same Idempotency-Key, different body' },
  concurrent_idempotent_requests: { status: 409, description: 'Same Idempotency-Key while the first is in flight' },
  rate_limit_exceeded: { status: 429, description: 'Too many requests per second for this account' },
  application_error: { status: 500, description: 'An unexpected error' },
  service_unavailable: { status: 503, description: 'A dependency (database) is unavailable' },
} as const;

export type ErrorName = keyof typeof ERRORS;

export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly errorName: ErrorName,
    message: string,
    statusCode?: number,
  ) {
    super(message);
    this.statusCode = statusCode ?? ERRORS[errorName].status;
  }

  toBody(): { statusCode: number; message: string; name: string } {
    return { statusCode: this.statusCode, message: this.message, name: this.errorName };
  }
}

export const notFound = (what: string) => new ApiError('not_found', `${what} not found`);
export const validation = (message: string, status?: number) => new ApiError('validation_error', message, status);
export const missingField = (field: string) => new ApiError('missing_required_field', `Missing \`${field}\` field.`);
