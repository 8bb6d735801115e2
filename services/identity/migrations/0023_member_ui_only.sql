-- The public API's MEMBER_UI_ONLY account role (issue 13): authorized as MEMBER (README).
alter table users drop constraint users_account_role_check;
alter table users add constraint users_account_role_check
  check (account_role in ('admin', 'member', 'member_ui_only', 'annotator'));
