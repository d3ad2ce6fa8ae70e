import type { Logger } from 'pino';
import type { Config } from '../../../config.ts';
import { createLocalProvider } from './local.ts';
import { createOpenAiProvider } from './openai.ts';
import type { AnalysisProvider } from './provider.ts';

/** The provider ANALYSIS_PROVIDER names (config.ts has already refused openai without its endpoint). */
export function createAnalysisProvider(settings: Config['analysis'], log: Logger): AnalysisProvider {
  if (settings.provider === 'openai' && settings.baseUrl && settings.model) {
    return createOpenAiProvider(
      { baseUrl: settings.baseUrl, apiKey: settings.apiKey, model: settings.model, timeoutMs: settings.timeoutMs },
      log.child({ module: 'analysis' }),
    );
  }
  return createLocalProvider();
}
