/** Signs each seeded operator in through the sign-in page, once, and keeps the browser state for the specs. */
import { expect, test as setup } from '@playwright/test';
import { storageStatePath } from './auth-state';
import { OPERATORS } from './seed-data';
import { SignInPage } from './studio-pages';

for (const operator of Object.values(OPERATORS)) {
  setup(`sign in as ${operator.login}`, async ({ page }) => {
    await page.goto('/');
    await expect(page).toHaveURL(/\/sign-in$/);
    await new SignInPage(page).signIn(operator.login, operator.password);
    await expect(page.getByTestId('signed-in-as')).toContainText(operator.name);
    await page.context().storageState({ path: storageStatePath(operator.login) });
  });
}
