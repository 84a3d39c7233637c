/**
 * A user named by id, by email, or by a user object (`req.user`, an `AuthUser`): how every room
 * that keeps rows of a user (tokens, sessions, reset links) takes its owner from callers.
 */
export type UserRef = number | string | { readonly id: number };
