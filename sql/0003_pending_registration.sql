-- Issue 15, item 4: a sign-up restart of an unverified address used to overwrite the user's password
-- and the organization's name at once, so whoever registered last set the password the owner's code
-- then activated. The pending credentials now live with the challenge of their own registration and
-- are applied only when that challenge's code is verified (modules/auth/service.ts, verifyOtp).
alter table otp_challenges add column pending_password_hash text;
alter table otp_challenges add column pending_name text;
alter table otp_challenges add column pending_org_name text;
