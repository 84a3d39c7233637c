/** What a scope's name may be: the same as a token's scopes (src/tokens/fields.ts). */
export const SCOPE_NAME = /^[a-z0-9:._-]{1,64}$/;
