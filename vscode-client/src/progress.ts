/**
 * Shows the server's work-done progress (`window/workDoneProgress/create` + `$/progress`) as a
 * cancellable notification.
 *
 * vscode-languageclient 9 shows server-created progress only in the status bar
 * (`ProgressLocation.Window`), where it cannot be cancelled. This feature is registered after
 * the built-in ones, so its handler for `window/workDoneProgress/create` replaces the built-in
 * one on every start, including the library's automatic restarts after a crash.
 */

import * as vscode from "vscode";
import { progressText } from "./core/progressText";
import type { RunLog } from "./core/runLog";
import {
  type BaseLanguageClient,
  type ClientCapabilities,
  type FeatureState,
  type StaticFeature,
  WorkDoneProgress,
  type WorkDoneProgressBegin,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  type WorkDoneProgressReport,
} from "vscode-languageclient";

class NotificationProgress {
  private finish: (() => void) | undefined;
  private progress: vscode.Progress<{ message?: string }> | undefined;
  /** The server's latest text, kept until the notification exists to show it. */
  private latest: string | undefined;
  private ended = false;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly client: BaseLanguageClient,
    private readonly token: string | number,
    private readonly log: RunLog,
    private readonly onEnd: (part: NotificationProgress) => void,
  ) {
    this.subscription = client.onProgress(WorkDoneProgress.type, token, (value) => {
      switch (value.kind) {
        case "begin":
          this.begin(value);
          break;
        case "report":
          this.log.progress(value.message);
          this.report(value);
          break;
        case "end":
          this.end();
          break;
      }
    });
  }

  private begin(value: WorkDoneProgressBegin): void {
    if (this.ended) {
      return;
    }
    this.report(value);
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: value.title, cancellable: value.cancellable === true },
      (progress, cancellation) => {
        if (this.ended) {
          return Promise.resolve();
        }
        this.progress = progress;
        if (this.latest !== undefined) {
          progress.report({ message: this.latest });
        }
        cancellation.onCancellationRequested(() => {
          if (!this.ended) {
            this.log.cancelRequested("the progress notification");
            void this.client.sendNotification(WorkDoneProgressCancelNotification.type, { token: this.token });
          }
        });
        return new Promise<void>((resolve) => {
          this.finish = resolve;
        });
      },
    );
  }

  private report(value: WorkDoneProgressBegin | WorkDoneProgressReport): void {
    const message = progressText(value.message);
    if (message === undefined) {
      return;
    }
    this.latest = message;
    this.progress?.report({ message });
  }

  end(): void {
    if (this.ended) {
      return;
    }
    this.ended = true;
    this.subscription.dispose();
    this.finish?.();
    this.onEnd(this);
  }
}

export class NotificationProgressFeature implements StaticFeature {
  private readonly parts = new Set<NotificationProgress>();

  constructor(
    private readonly client: BaseLanguageClient,
    private readonly log: RunLog,
  ) {}

  getState(): FeatureState {
    return { kind: "static" };
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.window = { ...capabilities.window, workDoneProgress: true };
  }

  initialize(): void {
    this.client.onRequest(WorkDoneProgressCreateRequest.type, (params) => {
      this.parts.add(new NotificationProgress(this.client, params.token, this.log, (part) => this.parts.delete(part)));
    });
  }

  clear(): void {
    for (const part of [...this.parts]) {
      part.end();
    }
    this.parts.clear();
  }
}
