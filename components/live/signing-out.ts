/**
 * Whether this page is signing out. Signing out ends the session, and the page's live streams learn it
 * (`signed-out`) while the sign-out's own redirect is on its way: they must not race it to the sign-in
 * page with a `next` back to where the person just left.
 */
let signingOut = false;

export function markSigningOut(): void {
  signingOut = true;
}

export function isSigningOut(): boolean {
  return signingOut;
}
