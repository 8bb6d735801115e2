-- An invitation's verification token, stored only as its HMAC under the API key pepper.
-- Not projected from events (the token never is in one): invite and resend write it in the
-- transaction of their event; a resend replaces it, so the previous token stops working.
create table invitation_tokens (
  user_id uuid primary key references users(id),
  token_hash bytea not null unique,
  expires_at timestamptz not null
);
