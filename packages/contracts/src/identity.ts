/**
 * Identity's events as they are stored and published (`<root>.identity.<aggregate>.<Type>`):
 * the types its deciders produce, its projections apply, and other services consume.
 */

// Accounts (headless initialization creates the one account).

export interface AccountCreated {
  type: "AccountCreated";
  data: { id: string; name: string; created_at: string };
}

export type AccountEvent = AccountCreated;

// Organizations.

export interface OrganizationCreated {
  type: "OrganizationCreated";
  data: { id: string; account_id: string; name: string; description: string; created_at: string };
}

export interface OrganizationUpdated {
  type: "OrganizationUpdated";
  data: { id: string; name: string; description: string; updated_at: string };
}

/** Appended after the SpaceDeleted of each of its spaces, in the same transaction. */
export interface OrganizationDeleted {
  type: "OrganizationDeleted";
  data: { id: string; deleted_at: string };
}

export type OrganizationEvent = OrganizationCreated | OrganizationUpdated | OrganizationDeleted;

// Spaces.

export interface SpaceCreated {
  type: "SpaceCreated";
  data: {
    id: string;
    account_id: string;
    organization_id: string;
    name: string;
    description: string;
    is_private: boolean;
    created_at: string;
  };
}

/**
 * Settings of the public API that Argus stores and returns as set (update_space): keys absent
 * were never set; `default_llm_integration` and `default_agent_runtime` may be null (cleared).
 */
export interface SpaceSettings {
  ml_models_enabled?: boolean;
  gradient_start_color?: string;
  gradient_end_color?: string;
  default_llm_integration?: { integration_id: string; model_name: string } | null;
  default_agent_runtime?: { integration_id: string } | null;
}

export interface SpaceUpdated {
  type: "SpaceUpdated";
  data: {
    id: string;
    name: string;
    description: string;
    is_private: boolean;
    /** The whole settings after the update; absent in events from before settings existed. */
    settings?: SpaceSettings;
    updated_at: string;
  };
}

/** Consumed by every service that holds things in a space: they delete them. */
export interface SpaceDeleted {
  type: "SpaceDeleted";
  data: { id: string; account_id: string; organization_id: string; deleted_at: string };
}

export type SpaceEvent = SpaceCreated | SpaceUpdated | SpaceDeleted;

// Users.

/** member_ui_only: the public API's MEMBER_UI_ONLY, authorized as member (README). */
export type AccountRoleName = "admin" | "member" | "member_ui_only" | "annotator";

export interface UserCreated {
  type: "UserCreated";
  data: {
    id: string;
    account_id: string;
    email: string;
    name: string;
    account_role: AccountRoleName;
    is_developer: boolean;
    status: "INVITED" | "ACTIVE";
    /** null (or absent, in headless initialization's older events) when not invited. */
    invitation_expires_at?: string | null;
    created_at: string;
  };
}

/** Carries only the fields that changed. */
export interface UserUpdated {
  type: "UserUpdated";
  data: { id: string; name?: string; is_developer?: boolean; updated_at: string };
}

export interface UserDeleted {
  type: "UserDeleted";
  data: { id: string; deleted_at: string };
}

/** A new verification token (never in the event) with a new expiry. */
export interface UserInvitationResent {
  type: "UserInvitationResent";
  data: { id: string; invitation_expires_at: string };
}

export interface UserInvitationAccepted {
  type: "UserInvitationAccepted";
  data: { id: string; accepted_at: string };
}

/** A password-reset token (never in the event) valid until `reset_expires_at`. */
export interface UserPasswordResetRequested {
  type: "UserPasswordResetRequested";
  data: { id: string; reset_expires_at: string; requested_at: string };
}

export type UserEvent =
  | UserCreated
  | UserUpdated
  | UserDeleted
  | UserInvitationResent
  | UserInvitationAccepted
  | UserPasswordResetRequested;

// Custom roles (predefined roles are code, not events).

export interface RoleCreated {
  type: "RoleCreated";
  data: {
    id: string;
    account_id: string;
    name: string;
    description: string;
    permissions: string[];
    created_at: string;
  };
}

export interface RoleUpdated {
  type: "RoleUpdated";
  data: {
    id: string;
    name: string;
    description: string;
    permissions: string[];
    updated_at: string;
  };
}

export interface RoleDeleted {
  type: "RoleDeleted";
  data: { id: string };
}

export type RoleEvent = RoleCreated | RoleUpdated | RoleDeleted;

// Role bindings.

export type SubjectType = "USER" | "SERVICE_ACCOUNT";
export type BindingResourceType = "ORGANIZATION" | "SPACE" | "PROJECT";

export interface RoleBindingCreated {
  type: "RoleBindingCreated";
  data: {
    id: string;
    account_id: string;
    role_id: string;
    subject_type: SubjectType;
    subject_id: string;
    resource_type: BindingResourceType;
    resource_id: string;
    created_at: string;
  };
}

export interface RoleBindingUpdated {
  type: "RoleBindingUpdated";
  data: { id: string; role_id: string; updated_at: string };
}

export interface RoleBindingDeleted {
  type: "RoleBindingDeleted";
  data: { id: string; subject_type: SubjectType; subject_id: string };
}

export type RoleBindingEvent = RoleBindingCreated | RoleBindingUpdated | RoleBindingDeleted;

// Resource restrictions (a restricted project is reachable only through PROJECT bindings;
// DASHBOARD and PROMPT restrictions are stored and listed).

export type RestrictionType = "PROJECT" | "DASHBOARD" | "PROMPT";

export interface ResourceRestrictionCreated {
  type: "ResourceRestrictionCreated";
  data: {
    resource_id: string;
    account_id: string;
    resource_type: RestrictionType;
    created_at: string;
    /** The resource's space. Absent in events written before it: only an account admin lifts those. */
    space_id?: string;
  };
}

export interface ResourceRestrictionDeleted {
  type: "ResourceRestrictionDeleted";
  /** `resource_type` is absent in events written before it. */
  data: { resource_id: string; resource_type?: RestrictionType };
}

export type RestrictionEvent = ResourceRestrictionCreated | ResourceRestrictionDeleted;

// Service accounts (created with their SERVICE key).

export interface ServiceAccountCreated {
  type: "ServiceAccountCreated";
  data: {
    id: string;
    account_id: string;
    name: string;
    created_by_user_id: string;
    created_at: string;
    /** Absent in events written before it: MEMBER. */
    account_role?: "ADMIN" | "MEMBER";
  };
}

/** A role binding of the service account, made with it (its id is the binding's id). */
export interface ServiceAccountRoleGranted {
  type: "ServiceAccountRoleGranted";
  data: {
    id: string;
    account_id: string;
    service_account_id: string;
    role_id: string;
    resource_type: "ORGANIZATION" | "SPACE";
    resource_id: string;
    created_at: string;
  };
}

export type ServiceAccountEvent = ServiceAccountCreated | ServiceAccountRoleGranted;

// API keys (never the secret or its hash).

export interface ApiKeyCreated {
  type: "ApiKeyCreated";
  data: {
    id: string;
    account_id: string;
    key_type: "USER" | "SERVICE";
    user_id: string | null;
    service_account_id?: string | null;
    created_by_user_id: string;
    name: string;
    description: string;
    redacted_key: string;
    created_at: string;
    expires_at: string | null;
  };
}

export interface ApiKeyRevoked {
  type: "ApiKeyRevoked";
  data: { id: string; revoked_at: string };
}

/** A new secret; the previous one authenticates until `previous_secret_valid_until`. */
export interface ApiKeyRefreshed {
  type: "ApiKeyRefreshed";
  data: {
    id: string;
    redacted_key: string;
    expires_at: string | null;
    previous_secret_valid_until: string | null;
    refreshed_at: string;
  };
}

export type ApiKeyEvent = ApiKeyCreated | ApiKeyRevoked | ApiKeyRefreshed;

/** Every event identity publishes. */
export type IdentityEvent =
  | AccountEvent
  | OrganizationEvent
  | SpaceEvent
  | UserEvent
  | RoleEvent
  | RoleBindingEvent
  | RestrictionEvent
  | ServiceAccountEvent
  | ApiKeyEvent;
