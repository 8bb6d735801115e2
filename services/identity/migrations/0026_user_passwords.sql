-- A user's password, for users created with invite_mode TEMPORARY_PASSWORD: generated,
-- answered once, stored only as its HMAC under the API key pepper (like API keys and
-- invitation tokens; a generated password has the entropy of a key). Not projected from
-- events (the password never is in one): create_user writes it in the transaction of
-- UserCreated. `must_change`: a temporary password, to be changed at first sign-in.
create table user_passwords (
  user_id uuid primary key references users(id),
  password_hash bytea not null,
  must_change boolean not null,
  set_at timestamptz not null
);

-- A password-reset token (POST /v2/users/{id}/reset-password), stored only as its HMAC under
-- the pepper; the raw token would be e-mailed to the user (delivery is outside Argus). A new
-- request replaces it, so the previous one stops working; it lapses after 30 minutes.
create table password_reset_tokens (
  user_id uuid primary key references users(id),
  token_hash bytea not null unique,
  expires_at timestamptz not null
);
