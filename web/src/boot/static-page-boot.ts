// The static pages' one script (boot/static-page.ts says what it does), built on its own by
// web/build/prerender.ts, without the app's chunks.
import { bootStaticPage } from './static-page';

bootStaticPage();
